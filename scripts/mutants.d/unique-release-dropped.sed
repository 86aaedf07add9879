# unique: Release clears the slot without giving the value back
# kill: ./driver/scenario TestUniqueReleaseGivesValuesBack
# file: driver/scenario/unique.go
/^func (d \*Draws) Release() {$/,/^}$/s#^\(\s*\)d.pools\[slot\].release(i)$#\1_ = i#
