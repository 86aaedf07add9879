# think: the default think time not randomized (every user pauses exactly the mean)
# kill: ./driver/scenario TestThinkDistributions
# file: driver/scenario/think.go
s#return t.A/2 + time.Duration(r.Int64N(int64(t.A)+1))#return t.A#
