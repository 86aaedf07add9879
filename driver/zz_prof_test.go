package driver
import ("context";"os";"testing";"time")
func TestZZProf(t *testing.T){
 a := os.Getenv("ZZ_ADDR"); if a=="" {t.Skip()}
 res, err := Drive(context.Background(), Config{URL:"http://"+a+"/", Users:20, Duration:5*time.Second})
 if err!=nil {t.Fatal(err)}
 t.Log(res.Total.Count)
}
