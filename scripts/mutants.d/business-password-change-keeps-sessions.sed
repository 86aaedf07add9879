# a password change no longer counts a logout: the user's other sessions (other tiers, other browsers) go on trading
# kill: ./trade/server TestPasswordChangeEndsOtherSessions
# file: trade/business/account.go
# expect: survived the password change
/if hash != "" {/,/UpdateAccount/ s#^\t\t\ta.LogoutCount++$#\t\t\t_ = a.LogoutCount#
