# the smart client's Config.Validate lets an unknown --batch screen through (to the services host)
# kill: ./trade/tui TestConfigNamesTheField
# file: trade/tui/client.go
# expect: want an error of Batch
s/^\tcase c.Batch != "" \&\& !slices.Contains(BatchScreens(), c.Batch):$/\tcase false \&\& !slices.Contains(BatchScreens(), c.Batch):/
