# drawn by testbed report
set terminal pngcairo size 1200,700 font 'sans,10'
set grid
set key outside right top
set output 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/iteration_time.png'
set title 'Iteration time per strategy'
set xlabel 'iteration'
set ylabel 'seconds'
set yrange [0:*]
set xtics 1
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/iterations.dat' index 0 using 1:2 with linespoints title 'ps', \
  'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/iterations.dat' index 1 using 1:2 with linespoints title 'netstorm-pro'
set output 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/strategies.png'
set title 'Mean iteration time per run (lower is faster)'
set xlabel ''
set style fill solid 0.6
set boxwidth 0.7
set xtics rotate by -30 autofreq
unset key
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/means.dat' using 1:2:xtic(3) with boxes, '' using 1:2:(sprintf('%.2f s', $2)) with labels offset 0,0.7
set xtics norotate autofreq
set key outside right top
set terminal pngcairo size 1600,1820 font 'sans,8'
set output 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.png'
set multiplot layout 7,4 title 'Configured vs measured rate per link direction (Mbit/s over seconds)'
set key top left
set yrange [0:*]
set xlabel ''
set ylabel ''
set title 'atlanta > chicago'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 0 using 1:2 with steps lw 2 title 'configured', '' index 0 using 1:3 with lines title 'measured'
set title 'atlanta > houston'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 1 using 1:2 with steps lw 2 title 'configured', '' index 1 using 1:3 with lines title 'measured'
set title 'atlanta > washington'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 2 using 1:2 with steps lw 2 title 'configured', '' index 2 using 1:3 with lines title 'measured'
set title 'chicago > atlanta'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 3 using 1:2 with steps lw 2 title 'configured', '' index 3 using 1:3 with lines title 'measured'
set title 'chicago > kansascity'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 4 using 1:2 with steps lw 2 title 'configured', '' index 4 using 1:3 with lines title 'measured'
set title 'chicago > newyork'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 5 using 1:2 with steps lw 2 title 'configured', '' index 5 using 1:3 with lines title 'measured'
set title 'chicago > washington'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 6 using 1:2 with steps lw 2 title 'configured', '' index 6 using 1:3 with lines title 'measured'
set title 'houston > atlanta'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 7 using 1:2 with steps lw 2 title 'configured', '' index 7 using 1:3 with lines title 'measured'
set title 'houston > kansascity'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 8 using 1:2 with steps lw 2 title 'configured', '' index 8 using 1:3 with lines title 'measured'
set title 'houston > losangeles'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 9 using 1:2 with steps lw 2 title 'configured', '' index 9 using 1:3 with lines title 'measured'
set title 'kansascity > chicago'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 10 using 1:2 with steps lw 2 title 'configured', '' index 10 using 1:3 with lines title 'measured'
set title 'kansascity > houston'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 11 using 1:2 with steps lw 2 title 'configured', '' index 11 using 1:3 with lines title 'measured'
set title 'kansascity > saltlakecity'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 12 using 1:2 with steps lw 2 title 'configured', '' index 12 using 1:3 with lines title 'measured'
set title 'losangeles > houston'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 13 using 1:2 with steps lw 2 title 'configured', '' index 13 using 1:3 with lines title 'measured'
set title 'losangeles > saltlakecity'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 14 using 1:2 with steps lw 2 title 'configured', '' index 14 using 1:3 with lines title 'measured'
set title 'losangeles > seattle'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 15 using 1:2 with steps lw 2 title 'configured', '' index 15 using 1:3 with lines title 'measured'
set title 'newyork > chicago'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 16 using 1:2 with steps lw 2 title 'configured', '' index 16 using 1:3 with lines title 'measured'
set title 'newyork > washington'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 17 using 1:2 with steps lw 2 title 'configured', '' index 17 using 1:3 with lines title 'measured'
set title 'saltlakecity > kansascity'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 18 using 1:2 with steps lw 2 title 'configured', '' index 18 using 1:3 with lines title 'measured'
set title 'saltlakecity > losangeles'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 19 using 1:2 with steps lw 2 title 'configured', '' index 19 using 1:3 with lines title 'measured'
set title 'saltlakecity > seattle'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 20 using 1:2 with steps lw 2 title 'configured', '' index 20 using 1:3 with lines title 'measured'
set title 'seattle > losangeles'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 21 using 1:2 with steps lw 2 title 'configured', '' index 21 using 1:3 with lines title 'measured'
set title 'seattle > saltlakecity'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 22 using 1:2 with steps lw 2 title 'configured', '' index 22 using 1:3 with lines title 'measured'
set title 'washington > atlanta'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 23 using 1:2 with steps lw 2 title 'configured', '' index 23 using 1:3 with lines title 'measured'
set title 'washington > chicago'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 24 using 1:2 with steps lw 2 title 'configured', '' index 24 using 1:3 with lines title 'measured'
set title 'washington > newyork'
plot 'testbed-results/regress-2026-11-24T22-31-38Z/ci-smoke/links.dat' index 25 using 1:2 with steps lw 2 title 'configured', '' index 25 using 1:3 with lines title 'measured'
unset multiplot
