# quick mode's --body-template is ignored: the body is sent literally, braces and all
# kill: ./driver TestQuickBodyTemplate
# file: driver/quick.go
# expect: a templated body was sent as
s/^\tif len(q.Body) > 0 \&\& !q.BodyTemplate {$/\tif len(q.Body) > 0 {/
