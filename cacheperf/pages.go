package cacheperf

import (
	"html/template"
	"strconv"

	"github.com/tradebench/tradebench/internal/bytesize"
)

var statsPage = template.Must(template.New("stats").Funcs(template.FuncMap{
	"size": bytesize.Format,
	"pct":  formatPct,
}).Parse(`<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>CachePerf statistics</title>
<style>body{font-family:sans-serif} td,th{padding:2px 10px;text-align:right} th{text-align:left}</style></head>
<body><h1>CachePerf statistics</h1>
<p>{{.Time.Format "2006-01-02 15:04:05 MST"}} · up {{printf "%.0f" .Uptime}} s · store {{.Store}} · cache mode {{.Cache.Mode}}</p>
<h2>Cache</h2>
<table>
<tr><th>hit ratio</th><td>{{pct .HitRatio}}</td></tr>
<tr><th>entries</th><td>{{.Cache.Entries}}</td></tr>
<tr><th>bytes (accounted)</th><td>{{size .Cache.Bytes}}</td></tr>
<tr><th>budget</th><td>{{size .Cache.Limits.Budget}}</td></tr>
<tr><th>hits (memory)</th><td>{{.Cache.Hits}}</td></tr>
<tr><th>hits (disk tier)</th><td>{{.Cache.DiskHits}}</td></tr>
<tr><th>hits (remote)</th><td>{{.Cache.RemoteHits}}</td></tr>
<tr><th>misses (database)</th><td>{{.Cache.Misses}}</td></tr>
<tr><th>streamed (too big to cache)</th><td>{{.Cache.Streamed}}</td></tr>
<tr><th>evictions</th><td>{{.Cache.Evictions}} ({{size .Cache.EvictedBytes}})</td></tr>
<tr><th>expired</th><td>{{.Cache.Expired}}</td></tr>
<tr><th>load errors</th><td>{{.Cache.LoadErrors}}</td></tr>
{{with .Cache.Disk}}<tr><th>disk tier</th><td>{{.Entries}} files, {{size .Bytes}} of {{size .Budget}}; {{.Spills}} spills, {{.SpillDrops}} dropped, {{.Evictions}} evicted</td></tr>{{end}}
{{with .Cache.Remote}}<tr><th>{{.Protocol}} {{.Server}}</th><td>{{.Gets}} gets, {{.Hits}} hits, {{.Sets}} sets, {{.SetErrors}} set errors, {{.Errors}} errors</td></tr>{{end}}
</table>
<h2>Memory</h2>
<table>
<tr><th>resident (RSS)</th><td>{{size .Process.RSS}}</td></tr>
<tr><th>peak resident (VmHWM)</th><td>{{size .Process.PeakRSS}}</td></tr>
<tr><th>stated ceiling (budget + 3 × window + 64MB)</th><td>{{size .Cache.Limits.Ceiling}}</td></tr>
<tr><th>Go memory limit (ceiling − 32MB outside Go)</th><td>{{if lt .Process.MemoryLimit 9223372036854775807}}{{size .Process.MemoryLimit}}{{else}}none{{end}}</td></tr>
<tr><th>heap in use</th><td>{{size .Process.HeapInuse}}</td></tr>
<tr><th>heap allocated</th><td>{{size .Process.HeapAlloc}}</td></tr>
<tr><th>from the OS (Go runtime)</th><td>{{size .Process.Sys}}</td></tr>
<tr><th>GC cycles</th><td>{{.Process.NumGC}}</td></tr>
<tr><th>goroutines</th><td>{{.Process.Goroutines}}</td></tr>
</table>
<h2>Requests</h2>
<table>{{range $k, $v := .Requests}}<tr><th>{{$k}}</th><td>{{$v}}</td></tr>{{end}}</table>
<p><a href="/cacheperf/stats?format=json">JSON</a></p>
</body></html>
`))

func formatPct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 1, 64) + "%"
}
