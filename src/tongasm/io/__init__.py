"""Files in and out: bounded input reads (:mod:`.inputs`) and atomic outputs (:mod:`.outputs`)."""
