// A "driver" that exports cuInit only: the backend must say which entry
// point is missing instead of crashing.
extern "C" int cuInit(unsigned) { return 0; }
