# pricing: TPS converted through a float64
# kill: ./report/pricing TestPerTPSHalfCentOnTheDecimal
# file: report/pricing/pricing.go
s#t, ok := new(big.Rat).SetString(strconv.FormatFloat(tps, 'f', -1, 64))#t, ok := new(big.Rat).SetFloat64(tps), strconv.IntSize > 0#
