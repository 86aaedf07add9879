# capacity search: the confirming run given the short step's ramp-up and duration
# kill: ./driver/peak TestConfirmRunLength
# file: driver/peak/measure.go
# expect: want ramp-up 3s, duration 7s
s#st.RampUp, st.Duration = s.cfg.ConfirmRampUp, s.cfg.ConfirmDuration#st.RampUp, st.Duration = *s.cfg.StepRampUp, s.cfg.StepDuration#
