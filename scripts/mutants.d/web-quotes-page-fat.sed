# the quotes page's buy forms fat again: quoted quantity attributes and a 128-bit key prefix, five symbols take two writes
# kill: ./trade/server TestPagesFitOneWrite
# file: trade/web/cells.go
# expect: over net/http's 4096-byte write buffer
s#^\tvar b \[12\]byte$#\tvar b [16]byte#
s#<input class=qty type=number name=quantity value=100 min=1 max=1000000 aria-label=#<input class="qty" type="number" name="quantity" value="100" min="1" max="1000000" aria-label=#
