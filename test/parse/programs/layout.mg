# Layout freedom: calls over several lines, keyword arguments on their own
# lines, tabs, comments between tokens, several statements on a line.
graph	layout
{
	X = input f16[
		4,   # rows
		8    # cols
	]
	Y = reduce_sum(
		X,
		dim=1
	)  Z = exp( Y )
	W = kernel(X)
		grid=[2]
		forloop=2
	{
		x = tile(X, imap={ x : 0 }, fmap=1)
		save(accum(x), W, omap={x:0})
	}
	output Z ,
	  W
}
