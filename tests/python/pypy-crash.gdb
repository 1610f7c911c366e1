# tests/python/pypy-crash.gdb -- run_pypy.sh runs PyPy under gdb with this script: a fatal
# signal prints the C stack of every thread (faulthandler prints only the Python one), then
# goes on to faulthandler and ends the run as it would have without gdb.  The exit status is
# the program's: its code, or 128 + the signal that ended it.  Every other signal (SIGINT of
# the Ctrl-C tests included) reaches the program unseen.
set pagination off
set confirm off
set print thread-events off
set print inferior-events off
handle all nostop noprint pass
handle SIGINT nostop noprint pass
handle SIGSEGV SIGBUS SIGILL SIGFPE SIGABRT stop print pass
run
if $_isvoid($_exitcode) && $_isvoid($_exitsignal)
  echo \n== run_pypy.sh: C stacks at the fatal signal\n
  thread apply all bt 60
  info sharedlibrary
  handle SIGSEGV SIGBUS SIGILL SIGFPE SIGABRT nostop print pass
  continue
end
if !$_isvoid($_exitsignal)
  quit 128 + $_exitsignal
end
if !$_isvoid($_exitcode)
  quit $_exitcode
end
kill
quit 1
