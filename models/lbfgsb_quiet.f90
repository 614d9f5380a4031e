! models/lbfgsb_quiet.f90: owns one thing, silencing Fortran unit 6. Debian's L-BFGS-B 3.0 (liblbfgsb) prints
! "ascent direction in projection gd = ..." to unit 6 even with iprint < 0 (SciPy's copy guards that line with
! iprint >= 0), which would corrupt ringsched's standard output. Reconnecting unit 6 to /dev/null touches only the
! Fortran runtime: C++ output still goes to file descriptor 1 (libgfortran never closes descriptors 0-2).
subroutine ringsched_silence_fortran_stdout(ok) bind(C, name="ringsched_silence_fortran_stdout")
  use iso_c_binding, only: c_int
  integer(c_int), intent(out) :: ok
  integer :: ios
  open(unit=6, file='/dev/null', action='write', status='old', iostat=ios)
  ok = merge(1_c_int, 0_c_int, ios == 0)
end subroutine ringsched_silence_fortran_stdout
