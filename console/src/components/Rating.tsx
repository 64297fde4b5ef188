export function Rating({ average, count }: { average: number; count: number }) {
  return (
    <span className="rating" aria-label={`Rated ${average.toFixed(1)} out of 5 by ${count} people`}>
      <span aria-hidden="true">★ {average.toFixed(1)}</span> <span className="muted">({count.toLocaleString('en-US')})</span>
    </span>
  );
}
