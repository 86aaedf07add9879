# run rules: other_processes holds a superseded (re-measured) search step against the run
# kill: ./driver/peak TestDisturbedStepIsMeasuredAgain
# file: report/validity.go
s#st.Phase != "confirm" \&\& !st.Superseded \&\& #st.Phase != "confirm" \&\& #
