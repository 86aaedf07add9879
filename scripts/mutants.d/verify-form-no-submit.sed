# a form sent without its submit button's name and value: DayTrader's JSF login lacks login:submit=Log in
# kill: ./bench/verify TestReadForms
# file: bench/verify/forms.go
# expect: daytrader JSF login sends
s#^\t\t\t\tout.Add(s.name, s.value)#\t\t\t\t_ = s#
