# flags: a bare number given to --think (a UnitValue) gets no duration hint
# kill: ./internal/cliflag TestParseMistakesAreOneLine
# file: internal/cliflag/cliflag.go
# expect: think 1
s#isDurationFlag(f) || unit \&\& u.NeedsUnit() \&\& bare == nil#isDurationFlag(f) || false \&\& unit \&\& u.NeedsUnit() \&\& bare == nil#
