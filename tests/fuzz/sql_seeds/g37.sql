reset session prop;
