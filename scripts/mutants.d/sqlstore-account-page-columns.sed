# the account page's statement lays the account's e-mail and credit card over the wrong columns
# kill: ./trade/store TestUserReads
# file: trade/store/sqlstore/sqlstore.go
# expect: UserAccountPage = 
s/logoutcount, 0, email, creditcard"/logoutcount, 0, creditcard, email"/
