import { useInfiniteQuery, type QueryKey, type UseInfiniteQueryResult, type InfiniteData } from '@tanstack/react-query';

interface CursorPage {
  hasMore: boolean;
  nextCursor: string | null;
}

/** A cursor-paged listing of the API (jobs, ledger): one page at first, the next one each time `fetchNextPage` runs. */
export function useCursorPages<Page extends CursorPage>(
  queryKey: QueryKey,
  fetchPage: (cursor: string | undefined, signal: AbortSignal) => Promise<Page>,
): UseInfiniteQueryResult<InfiniteData<Page, string | undefined>> {
  return useInfiniteQuery({
    queryKey,
    queryFn: ({ pageParam, signal }) => fetchPage(pageParam, signal),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => (page.hasMore && page.nextCursor ? page.nextCursor : undefined),
  });
}

/** The "Load more" button of a cursor-paged list, shown while there is more. */
export function LoadMore({ pages }: { pages: Pick<UseInfiniteQueryResult, 'hasNextPage' | 'isFetchingNextPage' | 'fetchNextPage'> }) {
  if (!pages.hasNextPage) return null;
  return (
    <button type="button" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
      {pages.isFetchingNextPage ? 'Loading…' : 'Load more'}
    </button>
  );
}
