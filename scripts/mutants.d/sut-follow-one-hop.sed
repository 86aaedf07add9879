# sut: Follow follows one hop only: the database behind a services host counts as another process
# kill: ./driver/sut TestFollow
# file: driver/sut/backends.go
# expect: followed from the driver
s#for hop := 0; hop < MaxHops \&\&#for hop := 0; hop < 1 \&\&#
