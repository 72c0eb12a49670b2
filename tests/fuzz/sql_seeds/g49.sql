select "Quoted ""Ident""", date, year, comment, data, first, last, position, filter, key, value from "T" -- comment
