# A file with nothing but comments holds no program.
# EXPECT: 1:1: error: expected 'graph NAME { ... }', found an empty file
