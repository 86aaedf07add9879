# capacity chart: a knee band and caption on a search that found no knee
# kill: ./report/htmlreport TestCapacityCaptionClaimsNoKneeItDidNotFind
# file: report/htmlreport/validity.go
s#case p.Knee \&\& lastGood >= 0 \&\& firstBad > 0:#case lastGood >= 0 \&\& firstBad > 0:#
s#case p.Knee \&\& peak > 0:#case peak > 0:#
