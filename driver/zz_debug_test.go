package driver
import ("context";"testing";"time";"net/url";"github.com/tradebench/tradebench/driver/httpc")
func TestZZDebug(t *testing.T){
 s := startMonolith(t, 200, 100)
 u,_ := url.Parse(s.URL()); ep,_ := httpc.ParseEndpoint(u)
 c := httpc.NewClient(&httpc.Options{Timeout: 3*time.Second})
 resp, err := c.Do(context.Background(), &ep, &httpc.Request{Method:"GET", Target:[]byte("/daytrader/app"), KeepBody:true})
 t.Log(resp.Status, len(resp.Body), err)
 resp, err = c.Do(context.Background(), &ep, &httpc.Request{Method:"POST", Target:[]byte("/daytrader/app"), Header: []byte("Content-Type: application/x-www-form-urlencoded\r\n"), Body: []byte("action=login&uid=uid%3A1&passwd=xxx"), KeepBody:true})
 t.Log(resp.Status, len(resp.Body), err)
}
