# server.Config.Validate stops checking its embedded web options (Web.SessionTTL, Web.OrdersLimit)
# kill: ./trade/server TestConfigValidate
# file: trade/server/config.go
s#}{{"Web", c.Web.Validate()}, #}{{"Web", nil}, #
