# kept bodies are not charged to the driver's one body budget (each user capped on its own)
# kill: ./driver/vuser TestBodyBudgetBoundsTheDriver
# file: internal/httpc/httpc.go
# expect: peak RSS
s#^\t\tif extra > 0 && !bud.reserve(extra) {#\t\tif false \&\& extra > 0 \&\& !bud.reserve(extra) {#
