# the search's step notes only in hover tooltips, not in the table
# kill: ./report/htmlreport TestStepTableLegendAndNotes
# file: report/htmlreport/templates/report.tmpl
# expect: only in a tooltip|no step's note shown
s#<td class="step-note">{{.Note}}</td>#<td title="{{.Note}}"></td>#
