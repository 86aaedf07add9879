# verify.Outputs.Finish writes an interrupted verification as if it were a verdict
# kill: ./bench/verify TestOutputs
# file: bench/verify/outputs.go
# expect: interrupted: 
/^func Finish(/,/^}/s/^\tif err != nil {$/\tif err != nil \&\& false {/
