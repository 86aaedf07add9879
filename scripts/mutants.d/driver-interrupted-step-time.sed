# driver: an interrupted capacity search's time taken from its last finished step ("stopped after 15 s" after 40)
# kill: ./driver TestInterruptedSearchHeadline
# file: driver/pipeline.go
s#		end = max(end, res.Peak.Seconds)#		_ = res.Peak.Seconds#
