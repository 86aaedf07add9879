# the disclosure records the command line with its URLs' credentials
# kill: ./cmd/tradebench TestCredentialsInURLsNeverWritten
# file: driver/disclose/disclose.go
# expect: shows the secret
s#Command:  Command(dsn.RedactArgs(os.Args)),#Command:  Command(append(dsn.RedactArgs(nil), os.Args...)),#
