# report: the other_processes rule does not say why the target's server on this machine was not counted as the system under test
# kill: ./report TestSUTFoundAndNotFoundSaid
# file: report/validity.go
# expect: busy, server not found
s#if m := res.Machine; m != nil \&\& m.SUTNotFound != ""#if m := res.Machine; m != nil \&\& m.SUTNotFound == "x"#
