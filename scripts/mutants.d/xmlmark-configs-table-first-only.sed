# the configs listing stops after the first built-in
# kill: ./bench/xmlmarkjob TestConfigTable
# file: bench/xmlmarkjob/configs.go
# expect: built-ins
s#^\t\t\tc.StructureModification, c.Serialization, strings.Join(c.XMLFiles, " "))#&\n\t\tbreak#
