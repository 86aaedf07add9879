# verify --junit written in place (os.Create), not through report/publish's atomic writer: with --force a symbolic link at --junit is followed and the file it points at overwritten
# kill: ./cmd/tradebench TestVerifyCommandEnds
# file: report/publish/verification.go
# expect: followed the symbolic link
s#htmlreport.WriteFile(o.JUnit, res.WriteJUnit)#writeInPlace(o.JUnit, res.WriteJUnit)#
$a\
\
func writeInPlace(path string, write func(io.Writer) error) error {\
	f, err := os.Create(path)\
	if err != nil {\
		return err\
	}\
	defer f.Close()\
	return write(f)\
}
