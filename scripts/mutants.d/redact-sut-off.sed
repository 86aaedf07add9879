# a SUT metrics endpoint's credentials are kept in the results' sut section
# kill: ./cmd/tradebench TestCredentialsInURLsNeverWritten
# file: driver/sut/scrape.go
# expect: shows the secret MonPW
s#shown: dsn.Redact(u),#shown: u,#
