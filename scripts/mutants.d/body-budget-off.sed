# kept bodies are not charged to the driver's one body budget (each user capped on its own)
# kill: ./driver/vuser TestBodyBudgetBoundsTheDriver
# file: internal/httpc/body.go
# expect: peak RSS
s#^\t\tif !bud.reserveFreeing(charge(n)) {#\t\tif false \&\& !bud.reserveFreeing(charge(n)) {#
