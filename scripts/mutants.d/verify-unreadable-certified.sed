# a level whose checks could not be read is certified as passed
# kill: ./bench/verify TestVerifyUnreadableAccountPage
# file: report/verification.go
# expect: an unreadable account page certified
s#^\t\t\t\tl.Outcome = CheckUnreadable#\t\t\t\t_ = CheckUnreadable#
