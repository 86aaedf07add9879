# verify's overall deadline never set: a target answering just inside each request's timeout holds it for hours
# kill: ./bench/verify TestVerifyDeadline
# file: bench/verify/verify.go
# expect: want a \*DeadlineError
s#deadline := time.Now().Add(cfg.Deadline)#deadline := time.Now().Add(cfg.Deadline + time.Hour)#
