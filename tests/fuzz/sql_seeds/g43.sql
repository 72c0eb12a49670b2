commit;
