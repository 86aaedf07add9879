# a comma list flag keeps the spaces around its items (" mon " is no host name)
# kill: ./internal/cliflag TestLists
# file: internal/cliflag/lists.go
# expect: comma list
s#if item = strings.TrimSpace(item); item != ""#if strings.TrimSpace(item) != ""#
