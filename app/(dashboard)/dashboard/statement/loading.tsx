export { default } from "@/components/dashboard/page-skeleton";
