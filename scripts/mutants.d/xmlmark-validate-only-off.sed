# Validate does not check --only against the configuration's mix: the run starts instead of a usage error
# kill: ./bench/xmlmarkjob TestValidateNamesTheField
# file: bench/xmlmarkjob/xmlmarkjob.go
# expect: want a setting error of Only
s#if _, err := c.XML.Mix(c.Only); err != nil {#if _, err := c.XML.Mix(""); err != nil {#
