prepare q from select * from t where a = ? and b = ?;
