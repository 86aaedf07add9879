# unique: Release stops after the first slot
# kill: ./driver/scenario TestUniqueReleaseGivesValuesBack
# file: driver/scenario/unique.go
/^func (d \*Draws) Release() {$/,/^}$/s#^\(\s*\)d.held\[slot\] = -1$#&\n\1break#
