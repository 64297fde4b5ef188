import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { Layout } from './components/Layout';
import { RouteError } from './components/ErrorNotice';
import { AccountPage } from './pages/AccountPage';
import { CatalogPage } from './pages/CatalogPage';
import { JobPage } from './pages/JobPage';
import { JobsPage } from './pages/JobsPage';
import { ModelPage } from './pages/ModelPage';
import { NotFoundPage } from './pages/NotFoundPage';
import { SessionProvider } from './session';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // The SDK already retries where that is safe; a second layer would only delay error messages.
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 10_000 },
  },
});

const router = createBrowserRouter(
  [
    {
      element: <Layout />,
      errorElement: <RouteError />,
      children: [
        { index: true, element: <CatalogPage /> },
        { path: 'models/*', element: <ModelPage /> },
        { path: 'jobs', element: <JobsPage /> },
        { path: 'jobs/:jobId', element: <JobPage /> },
        { path: 'account', element: <AccountPage /> },
        { path: '*', element: <NotFoundPage /> },
      ],
    },
  ],
  { basename: '/console' },
);

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <SessionProvider>
        <RouterProvider router={router} />
      </SessionProvider>
    </QueryClientProvider>
  </StrictMode>,
);
