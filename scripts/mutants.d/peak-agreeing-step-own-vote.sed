# peak: a re-measurement that agrees with its first within the noise keeps its own verdict (drawn good beside "agrees with … past the knee")
# kill: ./driver/peak TestAgreeingRemeasureShownAsJudged
# file: driver/peak/knee.go
s#					st.Good = wasGood#					_ = wasGood#
