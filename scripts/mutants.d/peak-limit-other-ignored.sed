# peak: other processes never named as what limited the capacity
# kill: ./driver/peak TestLimitNamed
# file: driver/peak/conclude.go
s#if !st.Superseded \&\& st.OtherShare > cfg.MaxOtherShare \&\& #if false \&\& #
