[playlist]
NumberOfEntries=3
File2=b.ogg
Title2=B
File1=a.ogg
File10=j.ogg
Length1=-1
Version=2
