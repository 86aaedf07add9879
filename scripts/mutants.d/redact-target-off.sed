# the results store the target URL with its credentials
# kill: ./cmd/tradebench TestCredentialsInURLsNeverWritten
# file: driver/driver.go
# expect: shows the secret S3cretPW
s#^\tres.Target = dsn.Redact(target)$#\tres.Target = target#

