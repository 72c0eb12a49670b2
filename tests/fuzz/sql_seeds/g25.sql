delete from t where a = 1;
