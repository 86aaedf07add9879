# peak: the steps around the knee never doubted on their second measurement
# kill: ./driver/peak TestKneeStepsMustAgree
# file: driver/peak/peak.go
s#if (why == "") != wasGood \&\& differ(p.res, res) {#if false {#
