// Not for orders/[id]: a loading boundary there would stream a 200 before notFound() could answer 404.
export { default } from "@/components/dashboard/page-skeleton";
