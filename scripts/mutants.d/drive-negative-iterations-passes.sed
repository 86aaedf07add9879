# a drive's Validate forgets to check Iterations: a negative count passes
# kill: ./driver TestNegativeSettingsNamed
# file: driver/driver.go
# expect: negative Iterations
s#setting.NotNegative("Iterations", c.Iterations)#nil#
