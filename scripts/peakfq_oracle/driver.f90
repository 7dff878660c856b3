! Reads one EMA record (n, regional skew and its MSE, low-outlier test, fixed threshold, skew weighting, then
! ql qu tl tu dtype per year, logs base 10) and prints what PeakFQ's EMA routines return for it.
program drv
  implicit none
  integer :: n, i, nq
  double precision :: ql(25000), qu(25000), tl(25000), tu(25000), cmoms(3,3), pq(100), yp(100), cil(100), &
       cih(100), ve(100), rg, rgmse, gbthr
  character*4 :: dtype(25000), gbtype, wopt
  double precision :: gbcrit, gbthresh, pvaluew, qs, as_M_mse, as_S2_mse, as_G_mse, as_G_mse_Syst, as_G_ERL, Wd
  integer :: ns, nlow, nzero
  character*4 :: gbt
  common /tacg01/gbcrit, gbthresh, pvaluew(10000), qs(10000), ns, nlow, nzero, gbt
  common /tac005/as_M_mse, as_S2_mse, as_G_mse, as_G_mse_Syst, as_G_ERL
  common /sas/Wd
  read(*,*) n, rg, rgmse, gbtype, gbthr, wopt
  do i = 1, n
    read(*,*) ql(i), qu(i), tl(i), tu(i), dtype(i)
  end do
  call emafit(n, ql, qu, tl, tu, dtype, 1.d0, -999.d0, rg, rgmse, gbtype, gbthr, wopt, cmoms, pq, nq, yp, cil, &
       cih, ve)
  write(*,'(a,3es24.15)') 'FINAL', cmoms(:,1)
  write(*,'(a,3es24.15)') 'ATSITE', cmoms(:,2)
  write(*,'(a,3es24.15)') 'STAGE2', cmoms(:,3)
  write(*,'(a,4es24.15)') 'MSE', as_G_mse, Wd, gbcrit, gbthresh
  write(*,'(a,3i8,1x,a4)') 'LOW', ns, nlow, nzero, gbt
  do i = 1, min(ns, 10)
    write(*,'(a,i6,2es24.15)') 'P', i, qs(i), pvaluew(i)
  end do
  do i = 1, nq
    write(*,'(a,f10.6,4es24.15)') 'Q', pq(i), yp(i), cil(i), cih(i), ve(i)
  end do
end program
