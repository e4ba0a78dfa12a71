touch @DIR@/MARK_source_script-7-210
export EXTRA=1
