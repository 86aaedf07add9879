# unique: Release gives nothing back (the next draw of the slot would)
# kill: ./driver/scenario TestUniqueReleaseGivesValuesBack
# file: driver/scenario/unique.go
/^func (d \*Draws) Release() {$/,/^}$/s#^\(\s*\)if i >= 0 {$#\1if i >= 0 \&\& false {#
