"""Files the apps make and take: deterministic PDFs, scan-like page images, upload checks
and the stored-file columns."""
